# SPDX-License-Identifier: MIT
# The warning set of babeltrace/lttng-ust (see ../shared/style.md), and the sanitizer switch.
set(DPS_WARNING_FLAGS
    -Wall -Wextra -Wmissing-prototypes -Wmissing-declarations -Wnull-dereference
    -Wundef -Wredundant-decls -Wshadow -Wjump-misses-init -Wnested-externs
    -Wwrite-strings -Wformat=2 -Winit-self -Wduplicated-cond -Wduplicated-branches
    -Wlogical-op -Wold-style-definition -Wstrict-prototypes
    -Wno-sign-compare -Wno-maybe-uninitialized -Wno-missing-field-initializers)
if(DPS_WERROR)
    list(APPEND DPS_WARNING_FLAGS -Werror)
endif()

set(DPS_SANITIZER_FLAGS "")
if(DPS_SANITIZE)
    set(DPS_SANITIZER_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer
        -fno-sanitize-recover=undefined)
    add_compile_options(${DPS_SANITIZER_FLAGS})
    add_link_options(${DPS_SANITIZER_FLAGS})
endif()

# dps_target_warnings(target): our own code gets the full warning set; third-party headers don't.
function(dps_target_warnings target)
    target_compile_options(${target} PRIVATE ${DPS_WARNING_FLAGS})
endfunction()
