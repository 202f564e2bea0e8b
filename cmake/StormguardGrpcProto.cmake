# stormguard_grpc_proto_library(target root proto): a plain static library
# `target` of the C++ that protoc and grpc_cpp_plugin make, at build time,
# of the file `proto` under `root` (its import root), in the calling
# directory's gen/. Generated code is not ours to keep warning-free, so it
# is a library of its own, without stormguard's warnings. The caller has
# found gRPC (gRPC::grpc++ is imported per directory).
#
#   stormguard_grpc_proto_library(my_proto ${CMAKE_CURRENT_SOURCE_DIR} my.proto)
#   target_link_libraries(my_program PRIVATE my_proto)   # #include "my.grpc.pb.h"
function(stormguard_grpc_proto_library target root proto)
  find_program(STORMGUARD_PROTOC protoc REQUIRED)
  find_program(STORMGUARD_GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)
  set(gen ${CMAKE_CURRENT_BINARY_DIR}/gen)
  string(REGEX REPLACE "[.]proto$" "" stem ${proto})
  set(files ${gen}/${stem}.pb.cc ${gen}/${stem}.pb.h ${gen}/${stem}.grpc.pb.cc ${gen}/${stem}.grpc.pb.h)
  get_filename_component(dir ${gen}/${stem} DIRECTORY)
  add_custom_command(
    OUTPUT ${files}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${STORMGUARD_PROTOC} --proto_path=${root} --cpp_out=${gen}
            --grpc_out=${gen} --plugin=protoc-gen-grpc=${STORMGUARD_GRPC_CPP_PLUGIN} ${root}/${proto}
    DEPENDS ${root}/${proto}
    COMMENT "protoc: ${proto}")
  add_library(${target} STATIC ${files})
  target_include_directories(${target} PUBLIC ${gen})
  target_link_libraries(${target} PUBLIC gRPC::grpc++)
endfunction()
