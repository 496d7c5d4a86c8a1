from tools import compress as pack
from tools import expand

pack(b"x")
expand(b"y")
