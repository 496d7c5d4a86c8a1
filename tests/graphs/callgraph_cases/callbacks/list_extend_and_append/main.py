def one():
    return 1


def two():
    return 2


def three():
    return 3


steps = [one]
steps.append(two)
steps.extend([three])
for step in steps:
    step()
