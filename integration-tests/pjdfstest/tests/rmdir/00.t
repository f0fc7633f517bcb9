#!/bin/sh
# vim: filetype=sh noexpandtab ts=8 sw=8

desc="rmdir removes directories"

dir=`dirname $0`
. ${dir}/../misc.sh

echo "1..10"

n0=`namegen`
n1=`namegen`

expect 0 mkdir ${n0} 0755
expect dir lstat ${n0} type
expect 0 rmdir ${n0}
expect ENOENT lstat ${n0} type

expect 0 mkdir ${n0} 0755
expect 0 mkdir ${n0}/${n1} 0755
time=`stamp stat ${n0} ctime`
nap
expect 0 rmdir ${n0}/${n1}
mtime=`stamp stat ${n0} mtime`
test_check $time -lt $mtime
ctime=`stamp stat ${n0} ctime`
test_check $time -lt $ctime
expect 0 rmdir ${n0}
