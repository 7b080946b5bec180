# SPDX-License-Identifier: MIT
# libdps-stackprobe.so: the dps_stack provider and the -finstrument-functions hooks that emit
# it (doc/memory.md). Included once by the memory example's CMakeLists.txt (the memory helper's
# folders), so that the runtime's and tracepoints' CMake files stay as they are.
if(NOT TARGET dps-stackprobe)
    add_library(dps-stackprobe SHARED
        ${PROJECT_SOURCE_DIR}/tracepoints/dps_stack_tp.c
        ${PROJECT_SOURCE_DIR}/runtime/memprobe.c)
    target_include_directories(dps-stackprobe PRIVATE ${PROJECT_SOURCE_DIR}/tracepoints)
    target_compile_definitions(dps-stackprobe PRIVATE LTTNG_UST_COMPAT_API_VERSION=1)
    target_link_libraries(dps-stackprobe PRIVATE PkgConfig::LTTNG_UST ${CMAKE_DL_LIBS})
    # The hooks must never call themselves: no instrumentation, whatever the flags say.
    target_compile_options(dps-stackprobe PRIVATE -fno-instrument-functions)
    dps_target_warnings(dps-stackprobe)
    set_target_properties(dps-stackprobe PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0)
    install(TARGETS dps-stackprobe LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
