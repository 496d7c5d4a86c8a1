def pairs(names):
    for i, name in enumerate(names):
        print(i, name)
    for a, b in zip(names, names):
        print(a, b)
    return list(range(len(names)))


pairs(["x", "y"])
