select order_id, customer_id, cast(ordered_at as date) as ordered_on, status, amount
from {{ ref('raw_orders') }}
