# expect: runtime
# output: AttributeError
import sys
sys.modules['os'].getenv('HOME')
