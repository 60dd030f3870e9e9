# Included from tests/CMakeLists.txt. consumer_projects: install this build into a scratch prefix
# and build/run the C++ and C99 consumer projects against it with find_package(tilegemm), then
# configure the add_subdirectory() consumer without GTest and CLI11 (run.sh says what it checks).
add_test(NAME consumer_projects
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/consumer/run.sh ${PROJECT_BINARY_DIR} ${PROJECT_BINARY_DIR}/consumer-test)
set_tests_properties(consumer_projects PROPERTIES LABELS cpu TIMEOUT 600)
