# Writes OUT = "<short commit>" or "<short commit>-dirty" for the tree at SRC (run at build time).
execute_process(COMMAND ${GIT} -C ${SRC} rev-parse --short HEAD OUTPUT_VARIABLE commit
                OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0)
  set(commit "unknown")
else()
  execute_process(COMMAND ${GIT} -C ${SRC} status --porcelain --untracked-files=no OUTPUT_VARIABLE dirty
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT dirty STREQUAL "")
    set(commit "${commit}-dirty")
  endif()
endif()
file(WRITE ${OUT} "${commit}\n")
