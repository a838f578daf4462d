-- samples/blind-zk: the shop's tables (Sequelize models in app.js), no DDL
-- by the app. order_totals id=1 is bumped by a PL/pgSQL trigger on every
-- order: a row nobody's code names.
CREATE TABLE products (id integer PRIMARY KEY, name text NOT NULL, stock integer NOT NULL,
                       price integer NOT NULL);
CREATE TABLE orders (id serial PRIMARY KEY, product_id integer NOT NULL, qty integer NOT NULL,
                     amount integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE order_totals (id integer PRIMARY KEY, n bigint NOT NULL, amount bigint NOT NULL);
CREATE TABLE counters (id integer PRIMARY KEY, name text NOT NULL, hits bigint NOT NULL);
CREATE TABLE warehouses (id integer PRIMARY KEY, name text NOT NULL, reserved integer NOT NULL);
CREATE TABLE accounts (id integer PRIMARY KEY, balance integer NOT NULL);

CREATE FUNCTION bump_order_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE order_totals SET n = n + 1, amount = amount + NEW.amount WHERE id = 1;
    RETURN NEW;
END $$;
CREATE TRIGGER orders_totals AFTER INSERT ON orders
    FOR EACH ROW EXECUTE FUNCTION bump_order_totals();

INSERT INTO products SELECT g, 'product ' || g, 1000000, 100 FROM generate_series(1, 3) g;
INSERT INTO order_totals VALUES (1, 0, 0);
INSERT INTO counters SELECT g, 'page ' || g, 0 FROM generate_series(1, 4) g;
INSERT INTO warehouses SELECT g, 'warehouse ' || g, 0 FROM generate_series(1, 2) g;
INSERT INTO accounts SELECT g, 100000 FROM generate_series(1, 4) g;
