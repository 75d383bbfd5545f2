# expect: runtime
# output: ModuleNotFoundError: No module named 'subprocess'
import subprocess
subprocess.run(['id'])
