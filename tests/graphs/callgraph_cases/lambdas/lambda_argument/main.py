def apply(fn, value):
    return fn(value)


def double(x):
    return x * 2


apply(lambda v: double(v), 3)
