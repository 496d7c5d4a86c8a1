from .parser import Parser as DefaultParser
