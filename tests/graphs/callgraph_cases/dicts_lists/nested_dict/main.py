def get_user():
    return "user"


def post_user():
    return "created"


def get_item():
    return "item"


ROUTES = {
    "user": {"GET": get_user, "POST": post_user},
    "item": {"GET": get_item},
}


def handle():
    return ROUTES["user"]["POST"]()


handle()
