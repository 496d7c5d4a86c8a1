from lib import DefaultParser

p = DefaultParser()
p.feed("x")
