from models import User

u = User("ada")
u.describe()
