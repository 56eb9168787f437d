-- The sample's table (it-liberty's META-INF/sql/orders.sql) in MariaDB's syntax: AUTO_INCREMENT for
-- the identity column. Created by FreshMariaDbSchema before the sample deploys.
CREATE TABLE purchase_order (
    id          BIGINT        NOT NULL AUTO_INCREMENT,
    customer    VARCHAR(100)  NOT NULL,
    item        VARCHAR(200)  NOT NULL,
    quantity    INTEGER       NOT NULL,
    placed_via  VARCHAR(10)   NOT NULL,
    placed_at   DATETIME(6)   NOT NULL,
    CONSTRAINT purchase_order_pk PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE INDEX purchase_order_customer_idx ON purchase_order (customer, id);
