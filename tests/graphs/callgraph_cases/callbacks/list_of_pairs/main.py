def add(a, b):
    return a + b


def sub(a, b):
    return a - b


for name, op in [("add", add), ("sub", sub)]:
    op(2, 1)
