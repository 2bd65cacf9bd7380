# Static linking of the `sextant` executable's libraries (SEXTANT_STATIC_DEPS).
#
# Every shared library costs each process the dynamic loader's mapping, relocation and symbol
# binding: a program linking yaml-cpp, zlib, libdeflate, SQLite, fmt and libstdc++ starts in
# 3.6-4.3 ms of CPU on the project's 2-vCPU VMs, the same program linked statically in 1.0-1.3 ms
# (perf stat -r 100). That is an eighth of `sextant analyze` on a 1.8 MB trace. So the command-line
# tool links the archives Debian ships (libyaml-cpp.a, libz.a, libdeflate.a, libsqlite3.a),
# libstdc++ and libgcc statically (-static-libstdc++ -static-libgcc), and uses fmt header-only;
# glibc stays shared (dlopen of OpenBLAS, NCCL and the MPI module needs it). Test programs and
# the Python module (a shared object, which cannot take these non-PIC archives) link the shared
# libraries as before. The choice is made per linked target: sextant_dep() returns a generator
# expression that picks the archive when the target being linked has the property
# SEXTANT_STATIC_LINK set. Off with the sanitizers (ASan needs the shared libstdc++).
option(SEXTANT_STATIC_DEPS "Link the sextant executable's libraries statically (faster start)" ON)
if(SEXTANT_SANITIZE OR SEXTANT_FUZZ)
  set(SEXTANT_STATIC_DEPS OFF)
endif()

# sextant_dep(OUT SHARED_TARGET ARCHIVE_NAME): OUT is SHARED_TARGET, or the genex choosing
# ARCHIVE_NAME (found beside the shared library) for targets with SEXTANT_STATIC_LINK.
function(sextant_dep out shared_target archive_name)
  set(_choice ${shared_target})
  if(SEXTANT_STATIC_DEPS)
    find_library(_sx_archive_${archive_name} NAMES ${archive_name} NO_CACHE)
    if(_sx_archive_${archive_name})
      set(_choice "$<IF:$<BOOL:$<TARGET_PROPERTY:SEXTANT_STATIC_LINK>>,${_sx_archive_${archive_name}},${shared_target}>")
    else()
      message(STATUS "sextant: ${archive_name} not found, the executable links ${shared_target} shared")
    endif()
  endif()
  set(${out} "${_choice}" PARENT_SCOPE)
endfunction()
