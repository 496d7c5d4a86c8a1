from .util import clean


def handle(x):
    return clean(x)
