def save(item):
    return validate(item)


def validate(item):
    return item
