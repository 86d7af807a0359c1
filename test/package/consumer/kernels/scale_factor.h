// A header of the consumer's own, included by kernels/scale.cpp only.
#pragma once

#define CONSUMER_SCALE 2.5
