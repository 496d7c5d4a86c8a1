def describe(x):
    return repr(x)


print("util loaded")
