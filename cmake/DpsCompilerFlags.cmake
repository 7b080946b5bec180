# SPDX-License-Identifier: MIT
# The warning set of babeltrace/lttng-ust (see ../shared/style.md), and the sanitizer switch.
set(DPS_WARNING_FLAGS
    -Wall -Wextra -Wmissing-declarations -Wnull-dereference
    -Wundef -Wredundant-decls -Wshadow
    -Wwrite-strings -Wformat=2 -Winit-self -Wduplicated-cond -Wduplicated-branches
    -Wlogical-op
    -Wno-sign-compare -Wno-maybe-uninitialized -Wno-missing-field-initializers)
# C's own: g++ warns that they do not apply to C++ (bench/sync/cxxpipe.cc).
set(DPS_WARNING_FLAGS_C -Wmissing-prototypes -Wjump-misses-init -Wnested-externs
    -Wold-style-definition -Wstrict-prototypes)
if(CMAKE_C_COMPILER_ID MATCHES "Clang")
    # GCC's own (the fuzz preset builds with clang)
    list(REMOVE_ITEM DPS_WARNING_FLAGS -Wduplicated-cond
        -Wduplicated-branches -Wlogical-op -Wno-maybe-uninitialized)
    list(REMOVE_ITEM DPS_WARNING_FLAGS_C -Wjump-misses-init)
endif()
if(DPS_WERROR)
    list(APPEND DPS_WARNING_FLAGS -Werror)
endif()

set(DPS_SANITIZER_FLAGS "")
if(DPS_FUZZ)
    # libFuzzer's coverage on every library; -fsanitize=fuzzer (its main) only on the fuzzers.
    if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
        message(FATAL_ERROR "DPS_FUZZ needs clang (libFuzzer): cmake --preset fuzz")
    endif()
    add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
        -fno-sanitize-recover=undefined)
    add_link_options(-fsanitize=address,undefined)
elseif(DPS_SANITIZE)
    set(DPS_SANITIZER_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer
        -fno-sanitize-recover=undefined)
    add_compile_options(${DPS_SANITIZER_FLAGS})
    add_link_options(${DPS_SANITIZER_FLAGS})
endif()

# dps_target_warnings(target): our own code gets the full warning set; third-party headers don't.
function(dps_target_warnings target)
    target_compile_options(${target} PRIVATE ${DPS_WARNING_FLAGS}
        "$<$<COMPILE_LANGUAGE:C>:${DPS_WARNING_FLAGS_C}>")
endfunction()
