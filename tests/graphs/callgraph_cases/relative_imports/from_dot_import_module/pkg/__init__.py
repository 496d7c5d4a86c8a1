from . import engine
