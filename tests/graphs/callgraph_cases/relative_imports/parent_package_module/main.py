import app.web.views as views

views.index()
