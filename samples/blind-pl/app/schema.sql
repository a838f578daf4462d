-- samples/blind-pl: the shop's tables (app/shop.pl)
CREATE TABLE warehouses (id int PRIMARY KEY, stock int NOT NULL, reserved int NOT NULL DEFAULT 0);
CREATE TABLE accounts (id int PRIMARY KEY, balance numeric NOT NULL);
CREATE TABLE products (id int PRIMARY KEY, price numeric NOT NULL, stock int NOT NULL);
CREATE TABLE pages (id int PRIMARY KEY, hits bigint NOT NULL DEFAULT 0);
CREATE TABLE order_totals (id int PRIMARY KEY, n bigint NOT NULL DEFAULT 0, amount numeric NOT NULL DEFAULT 0);
CREATE TABLE orders (id bigserial PRIMARY KEY, product_id int NOT NULL, qty int NOT NULL, at timestamptz NOT NULL DEFAULT now());
INSERT INTO warehouses SELECT g, 1000000, 0 FROM generate_series(1, 3) g;
INSERT INTO accounts SELECT g, 100000 FROM generate_series(1, 5) g;
INSERT INTO products SELECT g, 10, 1000000 FROM generate_series(1, 20) g;
INSERT INTO pages SELECT g, 0 FROM generate_series(1, 10) g;
INSERT INTO order_totals VALUES (1, 0, 0);
CREATE FUNCTION bump_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE order_totals SET n = n + 1, amount = amount + NEW.qty WHERE id = 1;
  RETURN NEW;
END $$;
CREATE TRIGGER orders_bump AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION bump_totals();
