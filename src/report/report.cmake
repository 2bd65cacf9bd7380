# HTML reports: where the charting library is. scripts/install-npm-deps.sh (run by
# scripts/install-deps.sh and by the build target sextant_npm_deps) installs the pinned npm packages
# of scripts/npm/ into SEXTANT_NPM_DIR, a gitignored folder; the report writer reads echarts.min.js
# from there at run time (or from $SEXTANT_ECHARTS_JS) and inlines it into each report.
set(SEXTANT_NPM_DIR ${PROJECT_SOURCE_DIR}/.deps/npm CACHE PATH
    "Folder of the build-time npm packages (ECharts for reports, playwright-core for the browser test)")
set(SEXTANT_ECHARTS_JS ${SEXTANT_NPM_DIR}/node_modules/echarts/dist/echarts.min.js)
if(TARGET sextant_report)
  target_compile_definitions(sextant_report PRIVATE SEXTANT_ECHARTS_JS_DEFAULT="${SEXTANT_ECHARTS_JS}")
endif()
find_program(SEXTANT_NPM npm)
if(SEXTANT_NPM)
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/npm-deps.stamp
    COMMAND ${CMAKE_COMMAND} -E env SEXTANT_NPM_DIR=${SEXTANT_NPM_DIR}
            bash ${PROJECT_SOURCE_DIR}/scripts/install-npm-deps.sh
    COMMAND ${CMAKE_COMMAND} -E touch ${PROJECT_BINARY_DIR}/npm-deps.stamp
    DEPENDS ${PROJECT_SOURCE_DIR}/scripts/npm/package-lock.json ${PROJECT_SOURCE_DIR}/scripts/install-npm-deps.sh
    COMMENT "npm packages: ECharts (reports), playwright-core (browser test)" VERBATIM)
  add_custom_target(sextant_npm_deps ALL DEPENDS ${PROJECT_BINARY_DIR}/npm-deps.stamp)
elseif(NOT EXISTS ${SEXTANT_ECHARTS_JS})
  message(WARNING "npm not found and ${SEXTANT_ECHARTS_JS} missing: --report will fail until "
                  "scripts/install-deps.sh has installed node, npm and the charting library")
endif()
