# ctest script (cmake -P): calibrates and tunes for real, writes the report
# of it, has headless Chromium draw it, and checks the drawn page.
#   -DTOOL (tunekit), -DCHROMIUM, -DWORK (scratch folder), -DGRAPHS (examples/graphs)
cmake_minimum_required(VERSION 3.25)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "FAILED (exit ${result}): ${command}\n${out}${err}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
run("${TOOL}" calibrate --kernel Abs --kernel Gemm --element-type float --no-cache --time-budget 3
    --report "${WORK}/calibration.json")
foreach(run_name before after)
  execute_process(COMMAND "${TOOL}" tune "${GRAPHS}/layernorm.toml" --output "${WORK}/overrides_${run_name}.json" --json
                  RESULT_VARIABLE result OUTPUT_FILE "${WORK}/tune_${run_name}.json" ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "tune failed (exit ${result}):\n${err}")
  endif()
endforeach()
run("${TOOL}" report "${WORK}/calibration.json" "${WORK}/tune_after.json" "${WORK}/overrides_after.json"
    --before "${WORK}/tune_before.json" -o "${WORK}/report.html")

# Chromium as root needs --no-sandbox; the virtual time budget lets the
# scripts finish before the DOM is taken.
set(browser "${CHROMIUM}" --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=10000)
cmake_path(GET CHROMIUM FILENAME chromium_name)
if(NOT chromium_name STREQUAL "chromium-headless-shell")
  list(APPEND browser --headless=new)
endif()
execute_process(COMMAND ${browser} --enable-logging=stderr --v=0 --dump-dom "file://${WORK}/report.html"
                RESULT_VARIABLE result OUTPUT_VARIABLE dom ERROR_VARIABLE log)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${CHROMIUM} exited with ${result}:\n${log}")
endif()
file(WRITE "${WORK}/report.dom.html" "${dom}")

# No console message at all: Chart.js and the page's script log nothing when
# every chart draws.
string(REGEX MATCHALL "[^\n]*:CONSOLE[^\n]*" console "${log}")
if(console)
  string(REPLACE ";" "\n" console "${console}")
  message(FATAL_ERROR "the page logged to the console:\n${console}")
endif()

# Semicolons (in the canvases' style) would split CMake's list of matches.
string(REPLACE ";" "," flat_dom "${dom}")
string(REGEX MATCHALL "<canvas data-chart=[^>]*>" canvases "${flat_dom}")
list(LENGTH canvases count)
if(count LESS 4)
  message(FATAL_ERROR "expected at least 4 charts (two crossovers, Gemm's candidates, the shapes), found ${count}")
endif()
if(NOT dom MATCHES "data-charts-rendered=\"${count}\"")
  message(FATAL_ERROR "the page drew fewer charts than its ${count} canvases (data-charts-rendered)")
endif()
foreach(canvas IN LISTS canvases)
  if(NOT canvas MATCHES "data-expected-points=\"([0-9]+)\"")
    message(FATAL_ERROR "a canvas without data-expected-points: ${canvas}")
  endif()
  set(expected ${CMAKE_MATCH_1})
  if(NOT canvas MATCHES "data-rendered-points=\"([0-9]+)\"" OR NOT CMAKE_MATCH_1 EQUAL expected OR expected EQUAL 0)
    message(FATAL_ERROR "a chart did not draw its ${expected} points: ${canvas}")
  endif()
endforeach()
foreach(text "Before and after" "Calibration" "Graph autotuning" "Engine overrides" "tunekit_cpu/Gemm/packed/float")
  string(FIND "${dom}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the drawn page lacks '${text}'")
  endif()
endforeach()

run(${browser} --window-size=1280,2400 "--screenshot=${WORK}/report.png" "file://${WORK}/report.html")
file(SIZE "${WORK}/report.png" bytes)
if(bytes LESS 20000)
  message(FATAL_ERROR "the screenshot ${WORK}/report.png has only ${bytes} bytes")
endif()
message(STATUS "${count} charts drawn with every point; screenshot: ${WORK}/report.png")
