def default_action():
    return "default"


class Button:
    action = default_action

    @staticmethod
    def trigger():
        return Button.action()


Button.trigger()
