-- samples/blind-dj: the shop's tables (Django models are managed = False).
CREATE TABLE products (id int PRIMARY KEY, name text NOT NULL, price int NOT NULL, stock int NOT NULL);
CREATE TABLE orders (id bigserial PRIMARY KEY, product_id int NOT NULL, qty int NOT NULL, amount int NOT NULL,
                     created timestamptz NOT NULL DEFAULT now());
CREATE TABLE order_totals (id int PRIMARY KEY, n bigint NOT NULL, amount bigint NOT NULL);
CREATE TABLE counters (id int PRIMARY KEY, name text NOT NULL, n bigint NOT NULL);
CREATE TABLE pages (id int PRIMARY KEY, path text NOT NULL, hits bigint NOT NULL);
CREATE TABLE warehouses (id int PRIMARY KEY, name text NOT NULL, reserved int NOT NULL);
CREATE TABLE accounts (id int PRIMARY KEY, owner text NOT NULL, balance bigint NOT NULL);
-- The totals row every order bumps (PL/pgSQL trigger, AFTER INSERT).
CREATE FUNCTION bump_order_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE order_totals SET n = n + 1, amount = amount + NEW.amount WHERE id = 1;
    RETURN NEW;
END $$;
CREATE TRIGGER orders_totals AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION bump_order_totals();
INSERT INTO products SELECT g, 'p' || g, 100, 1000000 FROM generate_series(1, 4) g;
INSERT INTO order_totals VALUES (1, 0, 0);
INSERT INTO counters VALUES (1, 'orders', 0);
INSERT INTO pages SELECT g, '/page/' || g, 0 FROM generate_series(1, 4) g;
INSERT INTO warehouses SELECT g, 'w' || g, 0 FROM generate_series(1, 3) g;
INSERT INTO accounts SELECT g, 'a' || g, 1000000 FROM generate_series(1, 4) g;
