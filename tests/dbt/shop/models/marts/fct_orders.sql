select o.order_id, o.ordered_on, o.status, o.amount, c.country
from {{ ref('stg_orders') }} o
join {{ ref('stg_customers') }} c on c.customer_id = o.customer_id
