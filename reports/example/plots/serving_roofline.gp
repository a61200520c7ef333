# serving_roofline: llama3-70b-serve: roofline of each chip with the workload's ops
# Draws serving_roofline.svg and serving_roofline.png from serving_roofline.dat; run `gnuplot serving_roofline.gp` in this folder.
do for [fmt in 'svg png'] {
	reset
	if (fmt eq 'svg') {
		set terminal svg dynamic size 960,540 font 'sans,12' background '#ffffff' noenhanced
	} else {
		set terminal pngcairo size 960,540 font 'sans,10' background '#ffffff' noenhanced
	}
	set output 'serving_roofline.'.fmt
	set style textbox opaque noborder
	set multiplot title 'llama3-70b-serve: roofline of each chip with the workload''s ops' font ',14'
	set label 132 'llama3-70b-serve | hardware as_of 2026-08-21 to 2026-08-22 | roofcost 0.1.0' at screen 0.01, screen 0.018 left font ',9' tc rgb '#555555'
	# panel 1
	set lmargin at screen 0.0900; set rmargin at screen 0.7350
	set bmargin at screen 0.1400; set tmargin at screen 0.8800
	set title '' font ',11'
	set xlabel 'arithmetic intensity (FLOP per HBM byte)'
	set ylabel 'TFLOP/s per chip'
	set grid xtics ytics lc rgb '#e4e4e4' lw 1
	set border 3 lc rgb '#444444'
	set tics nomirror out scale 0.6
	set logscale x 10
	set format x '%g'
	set logscale y 10
	set format y '%g'
	set xrange [0.1:100000]
	set yrange [*:2967]
	set key at screen 0.7550, screen 0.8800 left top vertical Left reverse samplen 2.5 spacing 1.1 font ',10' noenhanced
	plot 'serving_roofline.dat' index 0 using 1:2 with lines lw 2 lc rgb '#e69f00' title 'h200 roof (bf16)', \
	     'serving_roofline.dat' index 1 using 1:2 with lines lw 2 lc rgb '#0072b2' title 'trainium2 roof (bf16)', \
	     'serving_roofline.dat' index 2 using 1:2 with points pt 7 ps 0.9 lc rgb '#e69f00' title 'p5en.48xlarge prefill', \
	     'serving_roofline.dat' index 3 using 1:2 with points pt 9 ps 0.9 lc rgb '#e69f00' title 'p5en.48xlarge decode', \
	     'serving_roofline.dat' index 4 using 1:2 with points pt 7 ps 0.9 lc rgb '#0072b2' title 'trn2.48xlarge prefill', \
	     'serving_roofline.dat' index 5 using 1:2 with points pt 9 ps 0.9 lc rgb '#0072b2' title 'trn2.48xlarge decode'
	unset label; unset arrow; unset logscale; set xtics autofreq; set ytics autofreq; unset offsets
	set xrange [*:*]; set yrange [*:*]; set format x; set format y
	unset multiplot
	unset output
}
