# expect: runtime
# output: ModuleNotFoundError: No module named 'socket'
import socket
socket.create_connection(('127.0.0.1', 22))
