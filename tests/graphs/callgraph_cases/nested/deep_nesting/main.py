def level_one():
    def level_two():
        def level_three():
            return target()

        return level_three()

    return level_two()


def target():
    return 0


level_one()
