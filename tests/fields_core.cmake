# Issue 15, part "core" (docs/fields.md 1, 2, 6 binary): the call, the
# context, the entries, binary records. Included by tests/CMakeLists.txt.
llog_tests(LABEL unit TIMEOUT 120 NAMES test_kv test_ctx test_kv_bound test_ctx_signal)
if(TARGET test_kv)
  target_link_libraries(test_kv PRIVATE m)
endif()

# Compile-fail tests: the compiler must refuse each case of kv_compile.c
# (WILL_FAIL); case 0, the positive control, must compile with -Werror, so
# a broken command line cannot make the others pass.
set(_kv_src ${CMAKE_CURRENT_SOURCE_DIR}/kv_compile.c)
set(_kv_cmd ${CMAKE_C_COMPILER} -std=gnu11 -fsyntax-only -Wall -Wextra
            -I${PROJECT_SOURCE_DIR}/include ${_kv_src})
add_test(NAME kv_compile_ok COMMAND ${_kv_cmd} -Werror -DCASE=0)
set_tests_properties(kv_compile_ok PROPERTIES LABELS unit TIMEOUT 60)
foreach(c IN ITEMS 1_struct 2_int_pointer 3_void_pointer 4_bare_null 5_key_not_literal
                   6_key_too_long 7_key_empty 8_odd_count 9_too_many_pairs 10_ctx_struct)
  string(REGEX MATCH "^[0-9]+" n ${c})
  add_test(NAME kv_compile_fail_${c} COMMAND ${_kv_cmd} -DCASE=${n})
  set_tests_properties(kv_compile_fail_${c} PROPERTIES LABELS unit TIMEOUT 60 WILL_FAIL TRUE)
endforeach()

# Binary file records with fields: a writer linked with llog, a reader
# linked with llogcat's decoder (tools/reader.c, tools/binrec.c).
if(TARGET llogcat_reader AND TARGET llogcat_render)
  add_executable(kv_binfile_writer kv_binfile_writer.c)
  target_link_libraries(kv_binfile_writer PRIVATE llog llog_build_flags)
  add_executable(test_kv_binfile test_kv_binfile.c)
  target_include_directories(test_kv_binfile PRIVATE ${PROJECT_SOURCE_DIR}/tools
                                                     ${PROJECT_SOURCE_DIR}/liblog)
  target_link_libraries(test_kv_binfile PRIVATE llogcat_reader llogcat_render PkgConfig::CMOCKA
                                                PkgConfig::ZSTD m llog_build_flags)
  add_test(NAME test_kv_binfile COMMAND test_kv_binfile $<TARGET_FILE:kv_binfile_writer>)
  set_tests_properties(test_kv_binfile PROPERTIES LABELS integration TIMEOUT 120)
endif()
