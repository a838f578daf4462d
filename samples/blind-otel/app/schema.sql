CREATE TABLE inventory (sku text PRIMARY KEY, stock int NOT NULL);
CREATE TABLE orders (id bigserial PRIMARY KEY, sku text NOT NULL,
    merchant_id int NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE wallets (id int PRIMARY KEY, balance numeric NOT NULL);
CREATE TABLE merchant_totals (merchant_id int PRIMARY KEY, n bigint NOT NULL,
    amount numeric NOT NULL);
CREATE TABLE payments (id bigserial PRIMARY KEY, merchant_id int NOT NULL,
    amount numeric NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE products (sku text PRIMARY KEY, price numeric NOT NULL);

CREATE FUNCTION bump_merchant_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE merchant_totals SET n = n + 1, amount = amount + NEW.amount
     WHERE merchant_id = NEW.merchant_id;
    RETURN NEW;
END $$;
-- BEFORE, so the counter row is locked before the INSERT's RETURNING runs
CREATE TRIGGER payments_totals BEFORE INSERT ON payments
    FOR EACH ROW EXECUTE FUNCTION bump_merchant_totals();

INSERT INTO inventory VALUES ('SKU-1', 1000000), ('SKU-2', 1000000), ('SKU-3', 1000000);
INSERT INTO wallets VALUES (1, 1000000), (2, 1000000), (3, 1000000);
INSERT INTO merchant_totals VALUES (1, 0, 0), (2, 0, 0);
INSERT INTO products VALUES ('SKU-1', 100), ('SKU-2', 200), ('SKU-3', 300);
