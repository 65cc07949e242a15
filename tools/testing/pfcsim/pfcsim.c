// SPDX-License-Identifier: GPL-2.0
/*
 * pfcsim - a simulated lossless NIC for testing pfcwd.
 *
 * Each port is an Ethernet net_device with eight TX queues and eight
 * traffic classes: priority P maps to traffic class P, which maps to TX
 * queue P.  Transmitted packets are counted per priority and freed.
 *
 * Control lives in debugfs, /sys/kernel/debug/pfcsim/:
 *   new_port	write NAME: create a port called NAME
 *   del_port	write NAME: delete the port called NAME
 *
 * Locking and context:
 *  - pfcsim_lock (a mutex) serialises port creation and deletion and
 *    protects pfcsim_ports; debugfs writes and module exit take it, in
 *    process context, before RTNL.
 *  - The per-queue counters are written by ndo_start_xmit (softirq or
 *    process context with the TX queue lock held, one writer per queue)
 *    and read through u64_stats by ethtool and ndo_get_stats64.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/u64_stats_sync.h>

#define PFCSIM_NUM_PRIO	8

struct pfcsim_queue_stats {
	struct u64_stats_sync syncp;
	u64_stats_t packets;
	u64_stats_t bytes;
};

struct pfcsim_port {
	struct list_head list;
	struct net_device *dev;
	struct pfcsim_queue_stats tx[PFCSIM_NUM_PRIO];
};

static DEFINE_MUTEX(pfcsim_lock);
static LIST_HEAD(pfcsim_ports);
static struct dentry *pfcsim_debugfs;

static netdev_tx_t pfcsim_start_xmit(struct sk_buff *skb,
				     struct net_device *dev)
{
	struct pfcsim_port *port = netdev_priv(dev);
	u16 qid = skb_get_queue_mapping(skb);
	struct pfcsim_queue_stats *st;

	if (qid >= PFCSIM_NUM_PRIO)
		qid = 0;
	st = &port->tx[qid];
	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->packets);
	u64_stats_add(&st->bytes, skb->len);
	u64_stats_update_end(&st->syncp);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static void pfcsim_read_queue(const struct pfcsim_queue_stats *st,
			      u64 *packets, u64 *bytes)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&st->syncp);
		*packets = u64_stats_read(&st->packets);
		*bytes = u64_stats_read(&st->bytes);
	} while (u64_stats_fetch_retry(&st->syncp, start));
}

static void pfcsim_get_stats64(struct net_device *dev,
			       struct rtnl_link_stats64 *stats)
{
	struct pfcsim_port *port = netdev_priv(dev);
	u64 packets, bytes;
	int i;

	for (i = 0; i < PFCSIM_NUM_PRIO; i++) {
		pfcsim_read_queue(&port->tx[i], &packets, &bytes);
		stats->tx_packets += packets;
		stats->tx_bytes += bytes;
	}
}

static int pfcsim_open(struct net_device *dev)
{
	netif_carrier_on(dev);
	netif_tx_start_all_queues(dev);
	return 0;
}

static int pfcsim_stop(struct net_device *dev)
{
	netif_tx_stop_all_queues(dev);
	netif_carrier_off(dev);
	return 0;
}

static const struct net_device_ops pfcsim_netdev_ops = {
	.ndo_open		= pfcsim_open,
	.ndo_stop		= pfcsim_stop,
	.ndo_start_xmit		= pfcsim_start_xmit,
	.ndo_get_stats64	= pfcsim_get_stats64,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};

static int pfcsim_get_sset_count(struct net_device *dev, int sset)
{
	return sset == ETH_SS_STATS ? PFCSIM_NUM_PRIO : -EOPNOTSUPP;
}

static void pfcsim_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < PFCSIM_NUM_PRIO; i++)
		snprintf(data + i * ETH_GSTRING_LEN, ETH_GSTRING_LEN,
			 "tx_prio%d_packets", i);
}

static void pfcsim_get_ethtool_stats(struct net_device *dev,
				     struct ethtool_stats *stats, u64 *data)
{
	struct pfcsim_port *port = netdev_priv(dev);
	u64 bytes;
	int i;

	for (i = 0; i < PFCSIM_NUM_PRIO; i++)
		pfcsim_read_queue(&port->tx[i], &data[i], &bytes);
}

static const struct ethtool_ops pfcsim_ethtool_ops = {
	.get_link		= ethtool_op_get_link,
	.get_sset_count		= pfcsim_get_sset_count,
	.get_strings		= pfcsim_get_strings,
	.get_ethtool_stats	= pfcsim_get_ethtool_stats,
};

static void pfcsim_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &pfcsim_netdev_ops;
	dev->ethtool_ops = &pfcsim_ethtool_ops;
	dev->needs_free_netdev = true;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = 9216;
}

/* Called with pfcsim_lock held, in process context. */
static int pfcsim_port_new(const char *name)
{
	struct pfcsim_port *port;
	struct net_device *dev;
	int i, err;

	dev = alloc_netdev_mqs(sizeof(*port), name, NET_NAME_USER, pfcsim_setup,
			       PFCSIM_NUM_PRIO, 1);
	if (!dev)
		return -ENOMEM;
	port = netdev_priv(dev);
	port->dev = dev;
	for (i = 0; i < PFCSIM_NUM_PRIO; i++)
		u64_stats_init(&port->tx[i].syncp);
	eth_hw_addr_random(dev);

	rtnl_lock();
	err = netdev_set_num_tc(dev, PFCSIM_NUM_PRIO);
	for (i = 0; !err && i < PFCSIM_NUM_PRIO; i++) {
		err = netdev_set_tc_queue(dev, i, 1, i);
		if (!err)
			err = netdev_set_prio_tc_map(dev, i, i);
	}
	if (!err)
		err = register_netdevice(dev);
	rtnl_unlock();
	if (err) {
		free_netdev(dev);
		return err;
	}
	list_add_tail(&port->list, &pfcsim_ports);
	return 0;
}

/* Called with pfcsim_lock held, in process context. */
static void pfcsim_port_del(struct pfcsim_port *port)
{
	list_del(&port->list);
	unregister_netdev(port->dev);
}

static struct pfcsim_port *pfcsim_port_find(const char *name)
{
	struct pfcsim_port *port;

	list_for_each_entry(port, &pfcsim_ports, list)
		if (!strcmp(port->dev->name, name))
			return port;
	return NULL;
}

/* Copies a one-word debugfs write into @name; strips one trailing newline. */
static int pfcsim_read_name(const char __user *ubuf, size_t count,
			    char name[IFNAMSIZ])
{
	if (count == 0 || count > IFNAMSIZ)
		return -EINVAL;
	if (copy_from_user(name, ubuf, count))
		return -EFAULT;
	if (name[count - 1] == '\n')
		count--;
	if (count == 0 || count >= IFNAMSIZ)
		return -EINVAL;
	name[count] = '\0';
	return dev_valid_name(name) ? 0 : -EINVAL;
}

static ssize_t pfcsim_new_port_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	char name[IFNAMSIZ];
	int err;

	err = pfcsim_read_name(ubuf, count, name);
	if (err)
		return err;
	mutex_lock(&pfcsim_lock);
	err = pfcsim_port_new(name);
	mutex_unlock(&pfcsim_lock);
	return err ? err : count;
}

static ssize_t pfcsim_del_port_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct pfcsim_port *port;
	char name[IFNAMSIZ];
	int err;

	err = pfcsim_read_name(ubuf, count, name);
	if (err)
		return err;
	mutex_lock(&pfcsim_lock);
	port = pfcsim_port_find(name);
	if (port)
		pfcsim_port_del(port);
	mutex_unlock(&pfcsim_lock);
	return port ? count : -ENODEV;
}

static const struct file_operations pfcsim_new_port_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= pfcsim_new_port_write,
	.llseek	= noop_llseek,
};

static const struct file_operations pfcsim_del_port_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= pfcsim_del_port_write,
	.llseek	= noop_llseek,
};

static int __init pfcsim_init(void)
{
	pfcsim_debugfs = debugfs_create_dir("pfcsim", NULL);
	if (IS_ERR(pfcsim_debugfs))
		return PTR_ERR(pfcsim_debugfs);
	debugfs_create_file("new_port", 0200, pfcsim_debugfs, NULL,
			    &pfcsim_new_port_fops);
	debugfs_create_file("del_port", 0200, pfcsim_debugfs, NULL,
			    &pfcsim_del_port_fops);
	return 0;
}

static void __exit pfcsim_exit(void)
{
	struct pfcsim_port *port, *tmp;

	/* No new writes can start once the files are gone. */
	debugfs_remove_recursive(pfcsim_debugfs);
	mutex_lock(&pfcsim_lock);
	list_for_each_entry_safe(port, tmp, &pfcsim_ports, list)
		pfcsim_port_del(port);
	mutex_unlock(&pfcsim_lock);
}

module_init(pfcsim_init);
module_exit(pfcsim_exit);

MODULE_DESCRIPTION("Simulated lossless (DCB) NIC for pfcwd tests");
MODULE_LICENSE("GPL");
