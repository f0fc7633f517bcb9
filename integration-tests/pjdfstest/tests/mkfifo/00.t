#!/bin/sh
# vim: filetype=sh noexpandtab ts=8 sw=8

desc="mkfifo creates fifo files"

dir=`dirname $0`
. ${dir}/../misc.sh

echo "1..36"

n0=`namegen`
n1=`namegen`

expect 0 mkdir ${n1} 0755
cdir=`pwd`
cd ${n1}

# POSIX: The file permission bits of the new FIFO shall be initialized from
# mode. The file permission bits of the mode argument shall be modified by the
# process' file creation mask.
expect 0 mkfifo ${n0} 0755
expect fifo,0755 lstat ${n0} type,mode
expect 0 unlink ${n0}
expect 0 mkfifo ${n0} 0151
expect fifo,0151 lstat ${n0} type,mode
expect 0 unlink ${n0}
expect 0 -U 077 mkfifo ${n0} 0151
expect fifo,0100 lstat ${n0} type,mode
expect 0 unlink ${n0}
expect 0 -U 070 mkfifo ${n0} 0345
expect fifo,0305 lstat ${n0} type,mode
expect 0 unlink ${n0}
expect 0 -U 0501 mkfifo ${n0} 0345
expect fifo,0244 lstat ${n0} type,mode
expect 0 unlink ${n0}

# POSIX: The FIFO's user ID shall be set to the process' effective user ID.
# The FIFO's group ID shall be set to the group ID of the parent directory or to
# the effective group ID of the process.
expect 0 chown . 65534 65534
expect 0 -u 65534 -g 65534 mkfifo ${n0} 0755
expect 65534,65534 lstat ${n0} uid,gid
expect 0 unlink ${n0}

expect 0 -u 65534 -g 65533 mkfifo ${n0} 0755
expect "65534,6553[34]" lstat ${n0} uid,gid
expect 0 unlink ${n0}

expect 0 chmod . 0777
expect 0 -u 65533 -g 65532 mkfifo ${n0} 0755
expect "65533,6553[24]" lstat ${n0} uid,gid
expect 0 unlink ${n0}

# POSIX: Upon successful completion, mkfifo() shall mark for update the
# st_atime, st_ctime, and st_mtime fields of the file. Also, the st_ctime and
# st_mtime fields of the directory that contains the new entry shall be marked
# for update.
expect 0 chown . 0 0
time=`stamp stat . ctime`
nap
expect 0 mkfifo ${n0} 0755
atime=`stamp stat ${n0} atime`
test_check $time -lt $atime
mtime=`stamp stat ${n0} mtime`
test_check $time -lt $mtime
ctime=`stamp stat ${n0} ctime`
test_check $time -lt $ctime
mtime=`stamp stat . mtime`
test_check $time -lt $mtime
ctime=`stamp stat . ctime`
test_check $time -lt $ctime
expect 0 unlink ${n0}

cd ${cdir}
expect 0 rmdir ${n1}
