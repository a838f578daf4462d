-- samples/blind-rb: the shop's tables (ActiveRecord 6.1 conventions: id
-- bigserial, created_at/updated_at, lock_version for optimistic locking).
CREATE TABLE products (
    id bigserial PRIMARY KEY, name text NOT NULL, stock integer NOT NULL,
    price numeric(10,2) NOT NULL, lock_version integer NOT NULL DEFAULT 0,
    created_at timestamp NOT NULL DEFAULT now(), updated_at timestamp NOT NULL DEFAULT now());
CREATE TABLE orders (
    id bigserial PRIMARY KEY, product_id bigint NOT NULL, quantity integer NOT NULL,
    amount numeric(12,2) NOT NULL,
    created_at timestamp NOT NULL, updated_at timestamp NOT NULL);
CREATE TABLE order_totals (
    id bigserial PRIMARY KEY, orders_count bigint NOT NULL DEFAULT 0,
    amount numeric(14,2) NOT NULL DEFAULT 0);
CREATE TABLE warehouses (
    id bigserial PRIMARY KEY, name text NOT NULL, reserved integer NOT NULL DEFAULT 0,
    created_at timestamp NOT NULL DEFAULT now(), updated_at timestamp NOT NULL DEFAULT now());
CREATE TABLE accounts (
    id bigserial PRIMARY KEY, balance numeric(12,2) NOT NULL,
    created_at timestamp NOT NULL DEFAULT now(), updated_at timestamp NOT NULL DEFAULT now());
CREATE TABLE articles (
    id bigserial PRIMARY KEY, title text NOT NULL, views_count integer,
    comments_count integer DEFAULT 0,
    created_at timestamp NOT NULL DEFAULT now(), updated_at timestamp NOT NULL DEFAULT now());
CREATE TABLE comments (
    id bigserial PRIMARY KEY, article_id bigint NOT NULL, body text NOT NULL,
    created_at timestamp NOT NULL, updated_at timestamp NOT NULL);

-- The running totals row: every order bumps order_totals id=1 (row locked
-- until the order's transaction ends).
CREATE FUNCTION bump_order_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE order_totals SET orders_count = orders_count + 1, amount = amount + NEW.amount
     WHERE id = 1;
    RETURN NEW;
END $$;
CREATE TRIGGER orders_totals AFTER INSERT ON orders
    FOR EACH ROW EXECUTE FUNCTION bump_order_totals();

INSERT INTO products (name, stock, price)
    SELECT 'product ' || g, 1000000, 9.99 + g FROM generate_series(1, 10) g;
INSERT INTO order_totals (orders_count, amount) VALUES (0, 0);
INSERT INTO warehouses (name) SELECT 'warehouse ' || g FROM generate_series(1, 4) g;
INSERT INTO accounts (balance) SELECT 1000000 FROM generate_series(1, 5) g;
INSERT INTO articles (title, views_count) SELECT 'article ' || g, 0 FROM generate_series(1, 5) g;
