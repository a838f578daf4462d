from django.db import models


class Product(models.Model):
    name = models.TextField()
    price = models.IntegerField()
    stock = models.IntegerField()

    class Meta:
        managed = False
        db_table = "products"


class Order(models.Model):
    product_id = models.IntegerField()
    qty = models.IntegerField()
    amount = models.IntegerField()

    class Meta:
        managed = False
        db_table = "orders"


class Counter(models.Model):
    name = models.TextField()
    n = models.BigIntegerField()

    class Meta:
        managed = False
        db_table = "counters"


class Page(models.Model):
    path = models.TextField()
    hits = models.BigIntegerField()

    class Meta:
        managed = False
        db_table = "pages"


class Warehouse(models.Model):
    name = models.TextField()
    reserved = models.IntegerField()

    class Meta:
        managed = False
        db_table = "warehouses"


class Account(models.Model):
    owner = models.TextField()
    balance = models.BigIntegerField()

    class Meta:
        managed = False
        db_table = "accounts"
