def retry(times):
    def decorator(fn):
        def wrapper(*args):
            return fn(*args)

        return wrapper

    return decorator


def logged(fn):
    def inner(*args):
        return fn(*args)

    return inner


@retry(3)
@logged
def fetch(url):
    return url


fetch("x")
