from functools import wraps


def logged(fn):
    @wraps(fn)
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)

    return inner


@logged
def area(w, h):
    return w * h


area(2, 3)
