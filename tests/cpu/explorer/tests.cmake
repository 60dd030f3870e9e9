# Included from tests/CMakeLists.txt (test_explorer, the gtest binary, is made there).
# explorer_browser drives the real page in headless chromium (browser_test.py; skipped, exit 77,
# where chromium is not installed).

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND AND TARGET tilegemm_cli)
  add_test(NAME explorer_browser
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cpu/explorer/browser_test.py
            --tilegemm $<TARGET_FILE:tilegemm_cli>
            --fixture ${CMAKE_CURRENT_SOURCE_DIR}/cpu/explorer/fixtures/trace_small.json
            --stage-fixture ${CMAKE_CURRENT_SOURCE_DIR}/cpu/explorer/fixtures/trace_tilegemm.json
            --direct-raw ${CMAKE_CURRENT_SOURCE_DIR}/cpu/trace/fixtures/h200_256x512x1024_direct.tgtrace
            --out ${PROJECT_BINARY_DIR}/explorer-screenshots)
  set_tests_properties(explorer_browser PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 TIMEOUT 600)
else()
  message(STATUS "explorer_browser test not added: no python3 interpreter found")
endif()
