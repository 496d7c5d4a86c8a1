def trace(fn):
    def wrapper(*args):
        return fn(*args)

    return wrapper


@trace
def add(a, b):
    return a + b


add(1, 2)
