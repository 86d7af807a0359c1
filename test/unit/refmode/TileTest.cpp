#include "RefTestUtil.h"
