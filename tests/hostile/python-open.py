# expect: runtime
# output: PermissionError
# not-output: root:x:0:0
open('/etc/passwd').read()
