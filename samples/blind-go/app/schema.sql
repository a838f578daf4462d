-- samples/blind-go: the shop's schema (loaded by samples/blind-go.sh).
CREATE TABLE products (
    id    int PRIMARY KEY,
    name  text NOT NULL,
    stock int NOT NULL,
    price numeric(10,2) NOT NULL
);
CREATE TABLE inventory (
    sku      text PRIMARY KEY,
    on_hand  int NOT NULL,
    reserved int NOT NULL DEFAULT 0
);
CREATE TABLE accounts (
    id      int PRIMARY KEY,
    balance numeric(12,2) NOT NULL
);
CREATE TABLE orders (
    id          bigserial PRIMARY KEY,
    product_id  int NOT NULL REFERENCES products (id),
    customer_id int NOT NULL,
    qty         int NOT NULL,
    amount      numeric(12,2) NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
-- one row per day: every order bumps today's row (a hot counter)
CREATE TABLE daily_totals (
    day    date PRIMARY KEY,
    orders int NOT NULL DEFAULT 0,
    amount numeric(14,2) NOT NULL DEFAULT 0
);

CREATE FUNCTION bump_daily_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE daily_totals SET orders = orders + 1, amount = amount + NEW.amount
     WHERE day = NEW.created_at::date;
    IF NOT FOUND THEN
        INSERT INTO daily_totals (day, orders, amount) VALUES (NEW.created_at::date, 1, NEW.amount);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER orders_daily_totals AFTER INSERT ON orders
    FOR EACH ROW EXECUTE FUNCTION bump_daily_totals();

-- called once per order: takes the stock and writes the order
CREATE FUNCTION place_order(p_product int, p_customer int, p_qty int) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    v_price numeric(10,2);
    v_id bigint;
BEGIN
    UPDATE products SET stock = stock - p_qty WHERE id = p_product RETURNING price INTO v_price;
    INSERT INTO orders (product_id, customer_id, qty, amount)
    VALUES (p_product, p_customer, p_qty, v_price * p_qty) RETURNING id INTO v_id;
    RETURN v_id;
END $$;

INSERT INTO products SELECT g, 'product ' || g, 1000000, 9.99 + g FROM generate_series(1, 20) g;
INSERT INTO inventory SELECT 'SKU-' || g, 100000, 0 FROM generate_series(1, 10) g;
INSERT INTO accounts SELECT g, 1000000 FROM generate_series(1, 4) g;
INSERT INTO daily_totals (day) VALUES (current_date);
VACUUM ANALYZE;
