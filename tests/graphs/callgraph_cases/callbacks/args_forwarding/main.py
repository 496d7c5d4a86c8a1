def greet(name):
    return name


def call(fn, *args):
    return fn(*args)


call(greet, "ada")
