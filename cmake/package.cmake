# The packaged library, included from the top-level CMakeLists.txt after src/ (docs/PACKAGING.md).
#
# Inside the build, `tilegemm` (src/api) is a static library that links its stages as separate
# static libraries (core, schedule, sm90, plan, jit; tp beside it), which is what the tools and tests use. A
# consumer gets the same code as ONE library in two forms, both built from those stages' objects:
#   tilegemm_static  -> libtilegemm.a   every stage's objects in one archive, so the archive is
#                                        self-contained: a consumer never needs to know the stages
#                                        or their order on a link line (the alternative, installing
#                                        five internal archives in the export set, would publish the
#                                        internal seams and their src/ include paths as an interface)
#   tilegemm_shared  -> libtilegemm.so  the same objects, cudart linked in statically, exporting only
#                                        the public API (tilegemm.map)
# Exported as tilegemm::tilegemm (shared) and tilegemm::tilegemm_static. libcuda is never linked:
# the driver is reached through cudaGetDriverEntryPointByVersion, so both start without a driver.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TILEGEMM_PACKAGED_STAGES tilegemm tilegemm_core tilegemm_schedule tilegemm_sm90 tilegemm_plan tilegemm_jit
                             tilegemm_tp)
set(tilegemm_objects "")
foreach(stage IN LISTS TILEGEMM_PACKAGED_STAGES)
  # The shared library needs position-independent objects; the static archive reuses them.
  set_target_properties(${stage} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  list(APPEND tilegemm_objects $<TARGET_OBJECTS:${stage}>)
endforeach()

# What a consumer's compiler and linker need. The public headers: include/tilegemm/ (tilegemm.hpp
# includes <cuda_runtime_api.h>, hence the toolkit's include directory; tilegemm.h needs nothing).
set(tilegemm_public_includes $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# The libraries the objects call: the CUDA runtime (static), NVRTC (the JIT), dl, pthread, rt
# (static cudart's own needs, which CUDA::cudart_static also names).
set(tilegemm_link_deps CUDA::cudart_static CUDA::nvrtc Threads::Threads ${CMAKE_DL_LIBS} rt)

add_library(tilegemm_static STATIC ${tilegemm_objects})
target_include_directories(tilegemm_static INTERFACE ${tilegemm_public_includes})
target_link_libraries(tilegemm_static INTERFACE ${tilegemm_link_deps})

add_library(tilegemm_shared SHARED ${tilegemm_objects})
target_include_directories(tilegemm_shared INTERFACE ${tilegemm_public_includes})
target_link_libraries(tilegemm_shared PRIVATE ${tilegemm_link_deps} INTERFACE CUDA::toolkit)
set(tilegemm_symbol_map ${PROJECT_SOURCE_DIR}/cmake/tilegemm.map)
target_link_options(tilegemm_shared PRIVATE
  # Export the public API only: static cudart's cuda* symbols stay inside, so a process that has
  # its own CUDA runtime (PyTorch) neither binds to ours nor we to its.
  "LINKER:--version-script=${tilegemm_symbol_map}"
  # Every symbol resolved at link time: the .so carries all it needs.
  "LINKER:--no-undefined")
set_property(TARGET tilegemm_shared APPEND PROPERTY LINK_DEPENDS ${tilegemm_symbol_map})

foreach(form tilegemm_static tilegemm_shared)
  set_target_properties(${form} PROPERTIES
    OUTPUT_NAME tilegemm
    LINKER_LANGUAGE CXX
    # build/lib/: where python/tilegemm and the consumer tests find the libraries in a build tree.
    ARCHIVE_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
endforeach()
set_target_properties(tilegemm_shared PROPERTIES
  VERSION ${PROJECT_VERSION}
  # 0.x: every minor release may change the ABI (docs/PACKAGING.md).
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  EXPORT_NAME tilegemm
  # Keep the CUDA toolkit's library directory in the installed RUNPATH, so libnvrtc is found
  # at run time (and by a consumer's linker) without LD_LIBRARY_PATH.
  INSTALL_RPATH_USE_LINK_PATH ON)
set_target_properties(tilegemm_static PROPERTIES EXPORT_NAME tilegemm_static)

# The same names for a project that adds this tree with add_subdirectory().
add_library(tilegemm::tilegemm ALIAS tilegemm_shared)
add_library(tilegemm::tilegemm_static ALIAS tilegemm_static)

if(TILEGEMM_INSTALL)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tilegemm DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")
  install(TARGETS tilegemm_static tilegemm_shared EXPORT tilegemmTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set(tilegemm_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/tilegemm)
  install(EXPORT tilegemmTargets NAMESPACE tilegemm:: DESTINATION ${tilegemm_cmake_dir})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tilegemmConfig.cmake.in
    ${PROJECT_BINARY_DIR}/tilegemmConfig.cmake INSTALL_DESTINATION ${tilegemm_cmake_dir})
  # 0.x: a consumer asking for 0.1 gets any 0.1.z, not 0.2 (SameMinorVersion).
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/tilegemmConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/tilegemmConfig.cmake ${PROJECT_BINARY_DIR}/tilegemmConfigVersion.cmake
          DESTINATION ${tilegemm_cmake_dir})
endif()
