-- samples/blind-java: the shop's schema (loaded by samples/blind-java.sh)
CREATE TABLE products (
    id      int PRIMARY KEY,
    name    text NOT NULL,
    stock   int NOT NULL,
    price   numeric(10,2) NOT NULL,
    version int NOT NULL DEFAULT 0          -- JPA @Version
);
CREATE TABLE warehouses (
    id           int PRIMARY KEY,
    name         text NOT NULL,
    reserved     int NOT NULL DEFAULT 0,
    last_counted timestamptz
);
CREATE TABLE accounts (
    id      int PRIMARY KEY,
    balance numeric(12,2) NOT NULL
);
CREATE TABLE order_totals (
    id     int PRIMARY KEY,                 -- one row per merchant; merchant 1 only
    orders bigint NOT NULL DEFAULT 0,
    amount numeric(14,2) NOT NULL DEFAULT 0
);
CREATE TABLE orders (
    id         bigserial PRIMARY KEY,
    product_id int NOT NULL,
    qty        int NOT NULL,
    amount     numeric(12,2) NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE order_lines (
    id       bigserial PRIMARY KEY,
    order_id bigint NOT NULL,
    line_no  int NOT NULL,
    sku      text NOT NULL,
    qty      int NOT NULL
);
CREATE FUNCTION orders_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE order_totals SET orders = orders + 1, amount = amount + NEW.amount WHERE id = 1;
    RETURN NEW;
END $$;
CREATE TRIGGER orders_totals AFTER INSERT ON orders
    FOR EACH ROW EXECUTE FUNCTION orders_totals();

INSERT INTO products SELECT g, 'product ' || g, 1000000, 10 + g, 0 FROM generate_series(1, 20) g;
INSERT INTO warehouses (id, name) SELECT g, 'warehouse ' || g FROM generate_series(1, 5) g;
INSERT INTO accounts SELECT g, 100000 FROM generate_series(1, 3) g;
INSERT INTO order_totals (id) VALUES (1);
