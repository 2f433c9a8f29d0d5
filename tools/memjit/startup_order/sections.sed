# First, every type_info object side by side: the ~6000 relocations the
# dynamic loader applies to them at each start (against the shared
# libstdc++'s type_info vtables) then touch ~40 pages instead of ~270.
1i\
.data.rel.ro._ZTI*
# Then each function name in, the four sections a compiler may have put it in
# out (GCC and clang prefix hot, cold and static-initialiser code).
h
s/^/.text./p
g
s/^/.text.unlikely./p
g
s/^/.text.startup./p
g
s/^/.text.hot./p
