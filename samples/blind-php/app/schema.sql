-- samples/blind-php: the shop's tables (PostgreSQL 13)
CREATE TABLE products (id int PRIMARY KEY, name text NOT NULL, stock int NOT NULL, price numeric(10,2) NOT NULL);
CREATE TABLE orders (id bigserial PRIMARY KEY, product_id int NOT NULL REFERENCES products, qty int NOT NULL,
                     amount numeric(12,2) NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE order_totals (id int PRIMARY KEY, n bigint NOT NULL, total numeric(14,2) NOT NULL);
CREATE TABLE pages (id int PRIMARY KEY, path text NOT NULL, hits bigint NOT NULL);
CREATE TABLE warehouses (id int PRIMARY KEY, name text NOT NULL, stock int NOT NULL, reserved int NOT NULL);
CREATE TABLE accounts (id int PRIMARY KEY, owner text NOT NULL, balance numeric(12,2) NOT NULL);

-- every order bumps the one totals row: a PL/pgSQL AFTER INSERT trigger
CREATE FUNCTION bump_order_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE order_totals SET n = n + 1, total = total + NEW.amount WHERE id = 1;
    RETURN NEW;
END;
$$;
CREATE TRIGGER orders_bump_totals AFTER INSERT ON orders
    FOR EACH ROW EXECUTE FUNCTION bump_order_totals();

INSERT INTO products SELECT g, 'product ' || g, 1000000, 10 + g FROM generate_series(1, 10) g;
INSERT INTO order_totals VALUES (1, 0, 0);
INSERT INTO pages SELECT g, '/page/' || g, 0 FROM generate_series(1, 20) g;
INSERT INTO warehouses SELECT g, 'warehouse ' || g, 100000, 0 FROM generate_series(1, 4) g;
INSERT INTO accounts SELECT g, 'owner ' || g, 1000 FROM generate_series(1, 5) g;
