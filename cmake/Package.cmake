# `cpack -G DEB` in the build folder: a .deb that installs the tool, the
# clang-tidy plugin and the documentation under /usr.
install(FILES README.md DESTINATION share/doc/tma-modernize)
install(DIRECTORY docs/ DESTINATION share/doc/tma-modernize/docs FILES_MATCHING PATTERN "*.md")

set(CPACK_PACKAGE_NAME "tma-modernize")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "CUDA rewriter: TMA descriptors (CUtensorMap) passed by value as __grid_constant__")
set(CPACK_PACKAGE_CONTACT "tma-modernize maintainers <tma-modernize@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_GENERATOR "DEB")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
# The tool and the plugin link the shared clang-cpp and LLVM 22 libraries,
# and the tool parses CUDA with clang 22's resource headers (the CUDA
# wrappers), recorded at build time: TMA_CLANG_RESOURCE_DIR.
set(TMA_DEB_LLVM_VERSION "1:${LLVM_VERSION_MAJOR}")
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libc6, libstdc++6, libgcc-s1, libclang-cpp${LLVM_VERSION_MAJOR} (>= ${TMA_DEB_LLVM_VERSION}), libllvm${LLVM_VERSION_MAJOR} (>= ${TMA_DEB_LLVM_VERSION}), libclang-common-${LLVM_VERSION_MAJOR}-dev (>= ${TMA_DEB_LLVM_VERSION})")
# The plugin is loaded into Debian's clang-tidy of the same LLVM.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "clang-tidy-${LLVM_VERSION_MAJOR}")
include(CPack)
