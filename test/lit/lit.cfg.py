# lit configuration for helionc: IR after each pass, emitted CUDA, diagnostics.
import os
import lit.formats

config.name = "helionc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cpp", ".json", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.helionc_obj_root, "test", "lit")

tools = os.path.join(config.helionc_obj_root, "bin")
config.substitutions.append(("%helionc", os.path.join(tools, "helionc")))
# FileCheck reads its input without lit-directive-like lines (filecheck-input.sh), so a
# test's CHECK lines cannot match their own copies in output compiled from %s.
filecheck = "bash %s %s" % (os.path.join(config.test_source_root, "filecheck-input.sh"),
                            config.filecheck)
config.substitutions.append(("%FileCheck", filecheck))
config.substitutions.append(("FileCheck", filecheck))
config.substitutions.append(("%examples", os.path.join(config.helionc_src_root, "examples")))
config.substitutions.append(("%benchmarks", os.path.join(config.helionc_src_root, "benchmarks")))
config.substitutions.append(("%include", os.path.join(config.helionc_src_root, "include")))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.environment["NO_COLOR"] = "1"
# The IR verifier after every pass, config passes included (Transforms/Pipeline.cpp).
config.environment["HELIONC_VERIFY_EACH"] = "1"
config.environment["HELIONC_CACHE_DIR"] = os.path.join(config.test_exec_root, "cache")
if config.frontend_enabled:
    config.available_features.add("frontend")
