def add(a, b):
    return a + b


def sub(a, b):
    return a - b


OPS = {"add": add, "sub": sub}
OPS["add"](1, 2)
