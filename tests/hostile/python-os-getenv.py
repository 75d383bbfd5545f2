# expect: runtime
# output: not supported in this environment
import os
os.getenv('HOME')
