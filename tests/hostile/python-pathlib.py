# expect: runtime
# not-output: root:x:0:0
from pathlib import Path
Path('/etc/passwd').read_text()
