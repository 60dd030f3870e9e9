# Included from tests/CMakeLists.txt: the Python package (python/tilegemm) against the library just
# built, with no install step (PYTHONPATH and TILEGEMM_LIBRARY point into this tree).
#   python_package  the ctypes layer, version agreement, argument errors, no_device (no torch needed)
#   python_torch    torch.ops.tilegemm.* fake shapes, torch.compile, errors; skipped (77) without torch
# test_torch_gpu.py needs an H200 and is run by scripts/device-python.sh, not here.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(tilegemm_python_env
    "PYTHONPATH=${PROJECT_SOURCE_DIR}/python"
    "TILEGEMM_LIBRARY=$<TARGET_FILE:tilegemm_shared>"
    "TILEGEMM_PROJECT_VERSION=${PROJECT_VERSION}"
    # The JIT's disk cache stays inside the build tree.
    "TILEGEMM_CACHE_DIR=${PROJECT_BINARY_DIR}/python-test-cache")
  add_test(NAME python_package
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/test_package_cpu.py -v)
  add_test(NAME python_torch COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/test_torch_cpu.py -v)
  set_tests_properties(python_package python_torch PROPERTIES
    LABELS cpu ENVIRONMENT "${tilegemm_python_env}" SKIP_RETURN_CODE 77 TIMEOUT 300)
else()
  message(STATUS "python tests not added: no python3 interpreter found")
endif()
