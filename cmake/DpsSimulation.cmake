# SPDX-License-Identifier: MIT
# Building simulations from action sets at build time (doc/simgen.md).
#
#   dps_add_simulation(<target> SET <dir> [NAME <program-name>])
#
# runs `dps gen <dir>` when the set's files change and builds <target>, an executable linked
# with libdps. In the dps tree it uses the tree's dps and libdps; in another project that did
# find_package(PkgConfig), it uses the installed `dps` program and `pkg-config dps`.

include_guard(GLOBAL)

# dps_find_libdps(<var>): the libdps library target of this tree (the runtime's library whose
# output name is "dps", shared preferred), or "" when there is none yet.
function(dps_find_libdps var)
    set(found "")
    if(EXISTS "${PROJECT_SOURCE_DIR}/runtime")
        get_property(targets DIRECTORY "${PROJECT_SOURCE_DIR}/runtime"
            PROPERTY BUILDSYSTEM_TARGETS)
        foreach(kind SHARED_LIBRARY STATIC_LIBRARY)
            foreach(t ${targets})
                get_target_property(type ${t} TYPE)
                if(NOT type STREQUAL kind)
                    continue()
                endif()
                get_target_property(oname ${t} OUTPUT_NAME)
                if(NOT oname)
                    set(oname ${t})
                endif()
                if(NOT found AND oname STREQUAL "dps")
                    set(found ${t})
                endif()
            endforeach()
        endforeach()
    endif()
    set(${var} "${found}" PARENT_SCOPE)
endfunction()

function(dps_add_simulation target)
    cmake_parse_arguments(S "" "SET;NAME" "" ${ARGN})
    if(NOT S_SET)
        message(FATAL_ERROR "dps_add_simulation(${target}): SET <dir> is required")
    endif()
    if(NOT S_NAME)
        set(S_NAME ${target})
    endif()
    get_filename_component(set_dir "${S_SET}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT IS_DIRECTORY "${set_dir}")
        message(FATAL_ERROR "dps_add_simulation(${target}): no action set at ${set_dir}")
    endif()
    # CONFIGURE_DEPENDS: adding or removing a thread file re-runs the glob.
    file(GLOB set_files CONFIGURE_DEPENDS "${set_dir}/*.act" "${set_dir}/manifest")

    if(TARGET dps)
        set(dps_cmd $<TARGET_FILE:dps>)
        set(dps_dep dps)
        dps_find_libdps(libdps)
        if(NOT libdps)
            message(FATAL_ERROR "dps_add_simulation(${target}): libdps is not defined yet "
                "(call it after add_subdirectory(runtime))")
        endif()
    else()
        find_program(DPS_EXECUTABLE dps REQUIRED)
        pkg_check_modules(DPS REQUIRED IMPORTED_TARGET dps)
        set(dps_cmd ${DPS_EXECUTABLE})
        set(dps_dep "")
        set(libdps PkgConfig::DPS)
    endif()

    # The header of the generated file names the set relative to the project, so the file
    # does not depend on where the tree is checked out.
    file(RELATIVE_PATH set_label "${PROJECT_SOURCE_DIR}" "${set_dir}")
    set(src "${CMAKE_CURRENT_BINARY_DIR}/${target}.c")
    add_custom_command(OUTPUT "${src}"
        COMMAND ${dps_cmd} gen "${set_label}" -o "${src}" --name "${S_NAME}"
        WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
        DEPENDS ${dps_dep} ${set_files}
        COMMENT "Generating ${target} from the action set ${set_label}"
        VERBATIM)
    add_executable(${target} "${src}")
    target_link_libraries(${target} PRIVATE ${libdps} Threads::Threads)
    # Generated code must stay warning-free under the project's own warning set.
    if(COMMAND dps_target_warnings)
        dps_target_warnings(${target})
    endif()
endfunction()
